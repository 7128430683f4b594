import dynamic from './dynamic.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

testDetectorFolder('C-15', [dynamic], import.meta.url);
