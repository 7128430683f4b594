import dynamicPart from './dynamic.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

testDetectorFolder('X-6', [dynamicPart], import.meta.url);
