import dynamic from './dynamic.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

testDetectorFolder('X-8', [dynamic], import.meta.url);
